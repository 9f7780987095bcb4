package pool

// MeasureStealCost measures what StealCost documents.
var MeasureStealCost = measureStealCost
