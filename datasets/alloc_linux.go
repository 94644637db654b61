package datasets

import (
	"syscall"
	"unsafe"
)

// adviseHugePages asks Linux to back the 2 MiB-aligned part of b with
// transparent huge pages (madvise MADV_HUGEPAGE). It is only advice:
// errors are ignored.
func adviseHugePages(b []byte) {
	const huge = 2 << 20
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	start := (p + huge - 1) &^ (huge - 1)
	end := (p + uintptr(len(b))) &^ (huge - 1)
	if end <= start {
		return
	}
	off := int(start - p)
	syscall.Madvise(b[off:off+int(end-start)], syscall.MADV_HUGEPAGE)
}
