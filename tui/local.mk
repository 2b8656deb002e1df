# kjit-top
