module github.com/spindle-go/spindle

go 1.25
