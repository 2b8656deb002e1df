# doc
