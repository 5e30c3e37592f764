package server_test

// zsetBenchOps are the sorted-set commands of BenchmarkProtocolOverhead.
func zsetBenchOps(key string) []benchOp { return nil }
