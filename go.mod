module github.com/gopsim/gopsim

go 1.26

require github.com/google/btree v1.1.3

require (
	github.com/cockroachdb/datadriven v1.0.3 // indirect
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
)
