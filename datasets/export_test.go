package datasets

// CheckMatrixEquals lets the external tests (package datasets_test) check
// results with the package's own helper.
var CheckMatrixEquals = checkMatrixEquals
