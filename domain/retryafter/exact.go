package retryafter

import "math/bits"

// u128 is an unsigned 128-bit integer. The formulas are evaluated as one exact fraction whose
// numerator can pass 2^64 (positions up to 1e12, rates in thousandths up to 1e9, a margin in
// millionths); with the bounds Compute enforces it stays far below 2^128.
type u128 struct{ hi, lo uint64 }

func mul64(a, b uint64) u128 {
	hi, lo := bits.Mul64(a, b)
	return u128{hi, lo}
}

func (x u128) add(y u128) u128 {
	lo, carry := bits.Add64(x.lo, y.lo, 0)
	return u128{x.hi + y.hi + carry, lo}
}

// mul multiplies by a 64-bit factor; the caller's bounds guarantee no overflow.
func (x u128) mul(k uint64) u128 {
	hi, lo := bits.Mul64(x.lo, k)
	return u128{x.hi*k + hi, lo}
}

// divCeil returns ⌈x/d⌉ for d > 0.
func (x u128) divCeil(d uint64) u128 {
	q, r := x.divMod(d)
	if r != 0 {
		q = q.add(u128{0, 1})
	}
	return q
}

// divFloor returns ⌊x/d⌋ for d > 0.
func (x u128) divFloor(d uint64) u128 {
	q, _ := x.divMod(d)
	return q
}

func (x u128) divMod(d uint64) (u128, uint64) {
	qhi, rhi := x.hi/d, x.hi%d
	qlo, r := bits.Div64(rhi, x.lo, d)
	return u128{qhi, qlo}, r
}

// sat returns x as an int64, or limit if x is larger.
func (x u128) sat(limit int64) int64 {
	if x.hi != 0 || x.lo > uint64(limit) {
		return limit
	}
	return int64(x.lo)
}
