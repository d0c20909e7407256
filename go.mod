module github.com/gopsim/gopsim

go 1.26

require github.com/google/btree v1.1.3
