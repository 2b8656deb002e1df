# benchmarks of kjit-top
