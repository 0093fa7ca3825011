package dispatcher_test

// onlyInExternalTests is declared by the package's external tests, which
// are another package.
func onlyInExternalTests() {}
