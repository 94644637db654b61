package datasets

// NPYInfo describes a .npy file from its header.
type NPYInfo struct {
	// Rows and Cols are the matrix's shape.
	Rows, Cols int
	// Descr is the element type as NumPy writes it ("<f8", ">f4", "|u1").
	Descr string
	// Exact32 reports whether every value of the element type is a
	// float32 (float32, and integers of at most 2 bytes), so that reading
	// the file as Float32 loses nothing.
	Exact32 bool
	// Fortran reports column-major storage.
	Fortran bool
}

// StatNPY reads the header of the .npy file at path, with the checks of
// ReadNPY (a 2-D array of a supported type that fits the file).
func StatNPY(path string) (NPYInfo, error) {
	f, size, err := openInput(path, "an npy file")
	if err != nil {
		return NPYInfo{}, err
	}
	defer f.Close()
	h, err := readNPYHeader(f, size)
	if err == nil {
		err = h.checkPlatform()
	}
	if err != nil {
		return NPYInfo{}, inFile(path, err)
	}
	return NPYInfo{
		Rows: h.m, Cols: h.n, Descr: h.descr, Fortran: h.fortran,
		Exact32: h.kind == 'f' && h.itemSize == 4 || h.kind != 'f' && h.itemSize <= 2,
	}, nil
}
