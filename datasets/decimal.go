package datasets

import (
	"encoding/binary"
	"math"
	"math/big"
	"math/bits"
	"sync"
)

// parseDecimal parses the common forms of decimal numbers, an optional
// sign, digits with an optional decimal point and an optional exponent,
// as strconv.ParseFloat does (correctly rounded) but several times
// faster. ok is false for anything else, including numbers of more than
// 19 significant digits, overflows and the rare cases that need more
// precision than 128 bits, which are left to strconv.ParseFloat.
func parseDecimal(s []byte) (v float64, ok bool) {
	i := 0
	neg := false
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		i++
	}
	start := i
	for i < len(s) && s[i] == '0' {
		i++
	}
	// The significant digits are accumulated in man; a 20th digit is
	// refused below, before the overflowed man is used.
	var man uint64
	d0 := i
	for i < len(s) && s[i]-'0' <= 9 {
		man = man*10 + uint64(s[i]-'0')
		i++
	}
	nd := i - d0
	digits := i > start
	exp := 0
	if i < len(s) && s[i] == '.' {
		i++
		f0 := i
		if nd == 0 {
			for i < len(s) && s[i] == '0' {
				i++
			}
		}
		d1 := i
		// Eight digits at a time (Lemire's SWAR parsing).
		for i+8 <= len(s) {
			x := binary.LittleEndian.Uint64(s[i:])
			if (x&0xF0F0F0F0F0F0F0F0)|(((x+0x0606060606060606)&0xF0F0F0F0F0F0F0F0)>>4) != 0x3333333333333333 {
				break
			}
			x -= 0x3030303030303030
			x = x*10 + x>>8
			x = ((x&0x000000FF000000FF)*(100+(1000000<<32)) + (x>>16&0x000000FF000000FF)*(1+(10000<<32))) >> 32
			man = man*100000000 + x
			i += 8
		}
		for i < len(s) && s[i]-'0' <= 9 {
			man = man*10 + uint64(s[i]-'0')
			i++
		}
		nd += i - d1
		exp = f0 - i
		digits = digits || i > f0
	}
	if !digits || nd > 19 {
		return 0, false
	}
	if i < len(s) {
		if s[i]|0x20 != 'e' {
			return 0, false
		}
		i++
		eneg := false
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			eneg = s[i] == '-'
			i++
		}
		if i == len(s) {
			return 0, false
		}
		x := 0
		for ; i < len(s); i++ {
			c := s[i] - '0'
			if c > 9 {
				return 0, false
			}
			if x < 100000 {
				x = x*10 + int(c)
			}
		}
		if eneg {
			x = -x
		}
		exp += x
	}
	if man>>53 == 0 {
		// Clinger's fast path: man and 10^|exp| are exact float64s, so
		// one correctly rounded operation gives the result.
		f := float64(man)
		if neg {
			f = -f
		}
		switch {
		case exp == 0 || man == 0:
			return f, true
		case exp > 0 && exp <= 22:
			return f * exactPow10[exp], true
		case exp < 0 && exp >= -22:
			return f / exactPow10[-exp], true
		}
	}
	return eiselLemire(man, exp, neg)
}

// exactPow10 holds the powers of 10 that are exact float64s.
var exactPow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// The range of powers of 10 of pow10Table.
const (
	pow10Min = -348
	pow10Max = 347
)

// pow10Table returns the 128 most significant bits of 10^q, rounded
// down, as {low, high} 64-bit words at index q-pow10Min. It is computed
// once, when first needed (in about a millisecond).
var pow10Table = sync.OnceValue(func() *[pow10Max - pow10Min + 1][2]uint64 {
	var t [pow10Max - pow10Min + 1][2]uint64
	ten := big.NewInt(10)
	mask := new(big.Int).SetUint64(math.MaxUint64)
	for q := pow10Min; q <= pow10Max; q++ {
		var x *big.Int
		if q >= 0 {
			x = new(big.Int).Exp(ten, big.NewInt(int64(q)), nil)
			if sh := x.BitLen() - 128; sh > 0 {
				x.Rsh(x, uint(sh))
			} else {
				x.Lsh(x, uint(-sh))
			}
		} else {
			// 2^k / 10^-q lies in (2^127, 2^128) for this k, since
			// 10^-q is not a power of 2.
			d := new(big.Int).Exp(ten, big.NewInt(int64(-q)), nil)
			x = new(big.Int).Lsh(big.NewInt(1), uint(d.BitLen()+127))
			x.Quo(x, d)
		}
		lo := new(big.Int).And(x, mask).Uint64()
		hi := new(big.Int).Rsh(x, 64).Uint64()
		t[q-pow10Min] = [2]uint64{lo, hi}
	}
	return &t
})

// eiselLemire returns the float64 nearest to man × 10^exp10, negated if
// neg, by the algorithm of Eisel and Lemire (D. Lemire, "Number parsing at
// a gigabyte per second", Software: Practice and Experience 51(8), 2021),
// as strconv does. ok is false when 128 bits of 10^exp10 do not decide
// the rounding, and for results that are subnormal, zero or infinite.
func eiselLemire(man uint64, exp10 int, neg bool) (v float64, ok bool) {
	if man == 0 {
		if neg {
			return math.Copysign(0, -1), true
		}
		return 0, true
	}
	if exp10 < pow10Min || exp10 > pow10Max {
		return 0, false
	}
	p := &pow10Table()[exp10-pow10Min]
	// Normalize man and estimate the binary exponent:
	// 217706/2^16 approximates log2(10).
	clz := bits.LeadingZeros64(man)
	man <<= uint(clz)
	exp2 := uint64(217706*exp10>>16+64+1023) - uint64(clz)
	xHi, xLo := bits.Mul64(man, p[1])
	if xHi&0x1FF == 0x1FF && xLo+man < man {
		// The low bits are inconclusive: bring in the next 64 bits
		// of 10^exp10.
		yHi, yLo := bits.Mul64(man, p[0])
		mHi, mLo := xHi, xLo+yHi
		if mLo < xLo {
			mHi++
		}
		if mHi&0x1FF == 0x1FF && mLo+1 == 0 && yLo+man < man {
			return 0, false
		}
		xHi, xLo = mHi, mLo
	}
	// Keep 54 bits, then round to 53.
	msb := xHi >> 63
	m := xHi >> (msb + 9)
	exp2 -= 1 ^ msb
	if xLo == 0 && xHi&0x1FF == 0 && m&3 == 1 {
		return 0, false // halfway between two float64s
	}
	m += m & 1
	m >>= 1
	if m>>53 > 0 {
		m >>= 1
		exp2++
	}
	if exp2-1 >= 0x7FF-1 {
		return 0, false // subnormal, zero or infinite
	}
	b := exp2<<52 | m&(1<<52-1)
	if neg {
		b |= 1 << 63
	}
	return math.Float64frombits(b), true
}
