# tests of kjit-top
