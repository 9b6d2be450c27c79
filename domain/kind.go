package domain

import "fmt"

// Kind is a request kind. It is a closed set: the zero Kind is not a kind, and no other value can
// be made outside this package.
type Kind struct{ k uint8 }

var (
	InputProof    = Kind{1}
	UserDecrypt   = Kind{2}
	PublicDecrypt = Kind{3}
	// DelegatedUserDecrypt is a user decrypt asked by a delegate the handles' owner (the
	// delegator) authorised on the host ACL: the shares are re-encrypted to the delegate's key.
	DelegatedUserDecrypt = Kind{4}
)

// NumKinds is how many kinds there are: arrays indexed by Kind.Ordinal have this length.
const NumKinds = 4

var kindNames = [...]string{"", "input-proof", "user-decrypt", "public-decrypt", "delegated-user-decrypt"}

// Kinds lists every kind.
func Kinds() []Kind { return []Kind{InputProof, UserDecrypt, PublicDecrypt, DelegatedUserDecrypt} }

// ParseKind reads a kind's name ("input-proof", "user-decrypt", "public-decrypt",
// "delegated-user-decrypt").
func ParseKind(s string) (Kind, error) {
	for i := 1; i < len(kindNames); i++ {
		if kindNames[i] == s {
			return Kind{uint8(i)}, nil
		}
	}
	return Kind{}, fmt.Errorf("unknown request kind %q (want input-proof, user-decrypt, public-decrypt or delegated-user-decrypt)", s)
}

func (k Kind) String() string {
	if int(k.k) < len(kindNames) && k.k != 0 {
		return kindNames[k.k]
	}
	return "unknown"
}

// IsZero reports whether k is the zero Kind (no kind).
func (k Kind) IsZero() bool { return k.k == 0 }

// Ordinal is 0 to NumKinds-1, for indexing arrays; -1 for the zero Kind.
func (k Kind) Ordinal() int { return int(k.k) - 1 }

// NeedsReadiness reports whether the kind passes the readiness stage (decrypts do).
func (k Kind) NeedsReadiness() bool {
	return k == UserDecrypt || k == PublicDecrypt || k == DelegatedUserDecrypt
}

// CollectsShares reports whether KMS nodes answer the kind with one share each, the job
// completing with the threshold of them (user decrypts, delegated or not).
func (k Kind) CollectsShares() bool { return k == UserDecrypt || k == DelegatedUserDecrypt }

// Family is the kind whose gateway request, responses, result shape and throughput parameters
// k shares: UserDecrypt for DelegatedUserDecrypt (the gateway answers both with the same user
// decryption events and ids), k itself otherwise.
func (k Kind) Family() Kind {
	if k == DelegatedUserDecrypt {
		return UserDecrypt
	}
	return k
}

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
