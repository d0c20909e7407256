package trace

//go:generate go run ./pmpi/gen
