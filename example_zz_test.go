package redimo_test

// Example_zzDropTables is not an example to follow: go test runs the
// examples one at a time in the order of their files, so this one runs
// last and deletes the table the example before it made (each example's
// newClient deletes those of the examples before it).
func Example_zzDropTables() {
	dropExampleTables()
	// Output:
}
