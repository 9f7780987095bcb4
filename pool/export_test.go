package pool

// AnalyzeCPUTime is Analyze with strands timed in the analysis thread's
// CPU time (Linux), for tests that must not depend on preemptions.
func AnalyzeCPUTime(f func()) Analysis { return analyze(f, true) }
