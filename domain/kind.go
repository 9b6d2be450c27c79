package domain

import "fmt"

// Kind is a request kind. It is a closed set: the zero Kind is not a kind, and no other value can
// be made outside this package.
type Kind struct{ k uint8 }

var (
	InputProof    = Kind{1}
	UserDecrypt   = Kind{2}
	PublicDecrypt = Kind{3}
)

var kindNames = [...]string{"", "input-proof", "user-decrypt", "public-decrypt"}

// Kinds lists every kind.
func Kinds() []Kind { return []Kind{InputProof, UserDecrypt, PublicDecrypt} }

// ParseKind reads a kind's name ("input-proof", "user-decrypt", "public-decrypt").
func ParseKind(s string) (Kind, error) {
	for i := 1; i < len(kindNames); i++ {
		if kindNames[i] == s {
			return Kind{uint8(i)}, nil
		}
	}
	return Kind{}, fmt.Errorf("unknown request kind %q (want input-proof, user-decrypt or public-decrypt)", s)
}

func (k Kind) String() string {
	if int(k.k) < len(kindNames) && k.k != 0 {
		return kindNames[k.k]
	}
	return "unknown"
}

// IsZero reports whether k is the zero Kind (no kind).
func (k Kind) IsZero() bool { return k.k == 0 }

// Ordinal is 0, 1 or 2 for the three kinds, for indexing arrays; -1 for the zero Kind.
func (k Kind) Ordinal() int { return int(k.k) - 1 }

// NeedsReadiness reports whether the kind passes the readiness stage (decrypts do).
func (k Kind) NeedsReadiness() bool { return k == UserDecrypt || k == PublicDecrypt }

// InitialStatus is the status a request of this kind starts in: queued for decrypts (they wait
// for readiness), processing for input proofs.
func (k Kind) InitialStatus() Status {
	if k.NeedsReadiness() {
		return Queued
	}
	return Processing
}

func (k Kind) MarshalText() ([]byte, error) {
	if k.IsZero() {
		return nil, fmt.Errorf("marshal zero request kind")
	}
	return []byte(k.String()), nil
}

func (k *Kind) UnmarshalText(b []byte) error {
	v, err := ParseKind(string(b))
	if err != nil {
		return err
	}
	*k = v
	return nil
}
