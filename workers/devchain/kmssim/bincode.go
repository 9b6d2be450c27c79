package kmssim

import (
	"encoding/binary"
	"errors"
)

// The KMS serializes its messages with bincode's legacy (v1) configuration: little-endian
// fixed-width integers, byte strings and sequences prefixed by their length as a u64, structs as
// their fields in order, fixed-size arrays and tuples as their elements.

type encoder struct{ b []byte }

func (e *encoder) u32(v uint32) { e.b = binary.LittleEndian.AppendUint32(e.b, v) }
func (e *encoder) i32(v int32)  { e.u32(uint32(v)) }
func (e *encoder) u64(v uint64) { e.b = binary.LittleEndian.AppendUint64(e.b, v) }
func (e *encoder) raw(p []byte) { e.b = append(e.b, p...) }

// bytes writes a Vec<u8> (or serde bytes).
func (e *encoder) bytes(p []byte) {
	e.u64(uint64(len(p)))
	e.raw(p)
}

func (e *encoder) z128(v z128) {
	e.u64(v.lo)
	e.u64(v.hi)
}

// decoder reads what encoder writes; the first error sticks.
type decoder struct {
	b   []byte
	err error
}

var errShort = errors.New("truncated")

func (d *decoder) take(n uint64) []byte {
	if d.err != nil {
		return nil
	}
	if uint64(len(d.b)) < n {
		d.err = errShort
		return nil
	}
	p := d.b[:n]
	d.b = d.b[n:]
	return p
}

func (d *decoder) u32() uint32 {
	if p := d.take(4); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}

func (d *decoder) u64() uint64 {
	if p := d.take(8); p != nil {
		return binary.LittleEndian.Uint64(p)
	}
	return 0
}

func (d *decoder) bytes() []byte { return d.take(d.u64()) }
