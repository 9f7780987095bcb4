// Command fib will compare spindle with serial code and goroutines on fib.
// It is not written yet.
package main

func main() {}
