package gateway

// CrossProcessError is one entry of the list in errors.go, for the tests
// of package gateway_test.
type CrossProcessError struct {
	Code string
	Err  error
}

// CrossProcessErrors returns the sentinel errors registered for the wire,
// in the order of errors.go.
func CrossProcessErrors() []CrossProcessError {
	list := make([]CrossProcessError, 0, len(crossProcessErrors))
	for _, e := range crossProcessErrors {
		list = append(list, CrossProcessError{Code: e.code, Err: e.err})
	}
	return list
}
