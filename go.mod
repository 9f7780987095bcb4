module github.com/spindle-go/spindle

go 1.26.0

require (
	github.com/anishathalye/porcupine v1.3.1 // indirect
	github.com/sourcegraph/conc v0.3.0 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
	go.uber.org/automaxprocs v1.6.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
)
