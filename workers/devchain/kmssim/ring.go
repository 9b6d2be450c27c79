package kmssim

import "math/bits"

// The threshold KMS shares decryptions over the Galois ring GR(2^128, 4) = Z/2^128[X]/(X^4+X+1)
// (the KMS's ResiduePolyF4<Z128>): an element has four coefficients in Z/2^128, X^4 reduces to
// -1-X, and party i (from 1) evaluates sharing polynomials at the element whose coefficient j
// is bit j of i (1, X, 1+X, X^2, ...).

// z128 is an element of Z/2^128.
type z128 struct{ lo, hi uint64 }

func (a z128) add(b z128) z128 {
	lo, c := bits.Add64(a.lo, b.lo, 0)
	hi, _ := bits.Add64(a.hi, b.hi, c)
	return z128{lo, hi}
}

func (a z128) sub(b z128) z128 {
	lo, c := bits.Sub64(a.lo, b.lo, 0)
	hi, _ := bits.Sub64(a.hi, b.hi, c)
	return z128{lo, hi}
}

func (a z128) mul(b z128) z128 {
	hi, lo := bits.Mul64(a.lo, b.lo)
	hi += a.lo*b.hi + a.hi*b.lo
	return z128{lo, hi}
}

// shl shifts a left by n bits (n < 128).
func (a z128) shl(n uint) z128 {
	switch {
	case n == 0:
		return a
	case n >= 64:
		return z128{0, a.lo << (n - 64)}
	default:
		return z128{a.lo << n, a.hi<<n | a.lo>>(64-n)}
	}
}

// gr is an element of GR(2^128, 4): coefficients of 1, X, X^2, X^3.
type gr [4]z128

func (a gr) add(b gr) gr {
	for i := range a {
		a[i] = a[i].add(b[i])
	}
	return a
}

func (a gr) mul(b gr) gr {
	var c [7]z128
	for i := range a {
		for j := range b {
			c[i+j] = c[i+j].add(a[i].mul(b[j]))
		}
	}
	// X^k = X^(k-4) * (-1 - X) for k = 6, 5, 4.
	for k := 6; k >= 4; k-- {
		c[k-4] = c[k-4].sub(c[k])
		c[k-3] = c[k-3].sub(c[k])
	}
	return gr{c[0], c[1], c[2], c[3]}
}

// partyPoint is the ring element party (from 1) is evaluated at.
func partyPoint(party int) gr {
	var p gr
	for j := range p {
		if party>>j&1 == 1 {
			p[j] = z128{lo: 1}
		}
	}
	return p
}

// evalAt evaluates the polynomial with coefficients coefs (constant first) at x.
func evalAt(coefs []gr, x gr) gr {
	var acc gr
	for i := len(coefs) - 1; i >= 0; i-- {
		acc = acc.mul(x).add(coefs[i])
	}
	return acc
}
