//go:build unix

// Package guardpage places buffers flush against inaccessible pages, so
// that a test sees any access past either end of a buffer as a fault, also
// from assembly: a Go sub-slice's capacity only limits Go code.
package guardpage

import (
	"fmt"
	"runtime/debug"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A Buffer is memory of a requested size placed flush against an
// inaccessible (PROT_NONE) page, either right after its end or right
// before its start.
type Buffer struct {
	mem  []byte // the whole mapping, guard pages included
	data unsafe.Pointer
}

// New maps a buffer of nbytes bytes that ends right before a guard page
// (flushEnd) or starts right after one.
func New(nbytes int, flushEnd bool) (*Buffer, error) {
	page := unix.Getpagesize()
	body := (nbytes + page - 1) / page * page
	if body == 0 {
		body = page
	}
	mem, err := unix.Mmap(-1, 0, body+2*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return nil, fmt.Errorf("guardpage: mmap: %w", err)
	}
	b := &Buffer{mem: mem}
	if err := unix.Mprotect(mem[:page], unix.PROT_NONE); err != nil {
		b.Free()
		return nil, fmt.Errorf("guardpage: mprotect: %w", err)
	}
	if err := unix.Mprotect(mem[page+body:], unix.PROT_NONE); err != nil {
		b.Free()
		return nil, fmt.Errorf("guardpage: mprotect: %w", err)
	}
	off := page
	if flushEnd {
		off = page + body - nbytes
	}
	b.data = unsafe.Pointer(&mem[off])
	return b, nil
}

// Slice returns the buffer as n elements of type T; n times the size of T
// must not exceed the size it was made with.
func Slice[T any](b *Buffer, n int) []T {
	return unsafe.Slice((*T)(b.data), n)
}

// Free unmaps the buffer.
func (b *Buffer) Free() { _ = unix.Munmap(b.mem) }

// Faults runs f and reports whether it touched an inaccessible page.
func Faults(f func()) (fault bool) {
	old := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(old)
	defer func() {
		if recover() != nil {
			fault = true
		}
	}()
	f()
	return false
}
