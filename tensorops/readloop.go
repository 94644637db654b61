package tensorops

import "github.com/gpump/gpump/internal/readloop"

func init() { readloop.F64 = readF64 }
