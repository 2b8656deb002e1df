# examples
