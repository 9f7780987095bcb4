// Command quicksort will compare spindle with serial code and goroutines on quicksort.
// It is not written yet.
package main

func main() {}
