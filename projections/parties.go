package projections

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"relayer/domain"
)

// A job's parties are the addresses an operator looks a job up by (GET /v1/jobs): its users (the
// user of an input proof or a user decrypt; the delegator, then the delegate, of a delegated user
// decrypt; the user, then the delegators, of a unified one) and its contracts (an input proof's
// contract, a user decrypt's contract addresses, a unified one's handles' contracts). A unified
// user decrypt's parties are read by the codec: setParties leaves its payload to it.
// A public decrypt has none. Each list is kept as the addresses joined by commas, as the request
// holds them (lowercase 0x-hex, which packs to 20 bytes an address).

// requestParties returns the parties of r, read by the codec.
func requestParties(r domain.Request) (users, contracts []byte) {
	switch {
	case r.InputProof != nil:
		return []byte(r.InputProof.UserAddress), []byte(r.InputProof.ContractAddress)
	case r.PublicDecrypt != nil:
		return nil, nil
	case r.UserDecrypt != nil:
		return []byte(r.UserDecrypt.UserAddress), joinAddresses(r.UserDecrypt.ContractAddresses)
	case r.DelegatedUserDecrypt != nil:
		d := r.DelegatedUserDecrypt
		return joinAddresses([]string{d.DelegatorAddress, d.DelegateAddress}), joinAddresses(d.ContractAddresses)
	case r.UnifiedUserDecrypt != nil:
		// The user, then the owners of delegated handles; the handles' contracts. Each once,
		// in the order of the handles.
		u := r.UnifiedUserDecrypt
		users, contracts := []string{u.UserAddress}, []string{}
		for _, h := range u.Handles {
			if !slices.Contains(users, h.OwnerAddress) {
				users = append(users, h.OwnerAddress)
			}
			if !slices.Contains(contracts, h.ContractAddress) {
				contracts = append(contracts, h.ContractAddress)
			}
		}
		return joinAddresses(users), joinAddresses(contracts)
	}
	return nil, nil
}

func joinAddresses[S ~string | ~[]byte](addrs []S) []byte {
	var b []byte
	for i, a := range addrs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, a...)
	}
	return b
}

// payloadNames are the members of a request (domain.Request) that hold its payload, by kind.
var payloadNames = map[string]domain.Kind{
	"inputProof": domain.InputProof, "publicDecrypt": domain.PublicDecrypt,
	"userDecrypt": domain.UserDecrypt, "delegatedUserDecrypt": domain.DelegatedUserDecrypt,
}

// partyNames are the payload members that name parties.
var partyNames = []string{"userAddress", "contractAddress", "contractAddresses", "delegatorAddress", "delegateAddress"}

// setParties reads the parties of v, a request's JSON (already checked for syntax), as
// requestParties would from the codec's decoding. Anything less plain than the codec writes (a
// key in another case, a null, two payloads, a value of another type) it leaves to the codec.
func (f *fact) setParties(v []byte) error {
	if v[0] != '{' {
		return errors.New("want a JSON object")
	}
	var payload []byte
	var kind domain.Kind
	n := 0
	err := eachMember(v, func(key, val []byte) error {
		k, ok := payloadNames[string(key)]
		if !ok {
			for name := range payloadNames {
				if bytes.EqualFold(key, []byte(name)) {
					return errNotFast
				}
			}
			return nil // encoding/json skips unknown members
		}
		if val[0] != '{' {
			return errNotFast
		}
		payload, kind = val, k
		n++
		return nil
	})
	if err != nil {
		return err
	}
	if n != 1 {
		return errNotFast
	}
	var user, contract, delegator, delegate []byte
	var contracts [][]byte
	err = eachMember(payload, func(key, val []byte) error {
		name := ""
		for _, p := range partyNames {
			if string(key) == p {
				name = p
				break
			}
			if bytes.EqualFold(key, []byte(p)) {
				return errNotFast
			}
		}
		if name == "" {
			return nil
		}
		if name == "contractAddresses" {
			if val[0] != '[' {
				return errNotFast
			}
			var list [][]byte
			if err := eachElement(val, func(e []byte) error {
				if e[0] != '"' {
					return errNotFast
				}
				s, err := stringValue(e)
				list = append(list, s)
				return err
			}); err != nil {
				return err
			}
			contracts = list
			return nil
		}
		if val[0] != '"' {
			return errNotFast
		}
		s, err := stringValue(val)
		switch name {
		case "userAddress":
			user = s
		case "contractAddress":
			contract = s
		case "delegatorAddress":
			delegator = s
		case "delegateAddress":
			delegate = s
		}
		return err
	})
	if err != nil {
		return err
	}
	switch kind {
	case domain.InputProof:
		f.users, f.contracts = user, contract
	case domain.UserDecrypt:
		f.users, f.contracts = user, joinAddresses(contracts)
	case domain.DelegatedUserDecrypt:
		f.users, f.contracts = joinAddresses([][]byte{delegator, delegate}), joinAddresses(contracts)
	default:
		f.users, f.contracts = nil, nil
	}
	return nil
}

// eachMember calls fn with each member's key (plain: no escapes, else errNotFast) and value of
// the JSON object v, whose syntax is already checked.
func eachMember(v []byte, fn func(key, val []byte) error) error {
	i := skipSpace(v, 1)
	if i < len(v) && v[i] == '}' {
		return nil
	}
	for i < len(v) {
		end, plain, err := scanString(v, i)
		if err != nil {
			return err
		}
		if !plain {
			return errNotFast
		}
		key := v[i+1 : end-1]
		i = skipSpace(v, skipSpace(v, end)+1) // past the ':'
		start := i
		if i, err = skipValue(v, i, 0); err != nil {
			return err
		}
		if err := fn(key, v[start:i]); err != nil {
			return err
		}
		i = skipSpace(v, i)
		if i >= len(v) || v[i] == '}' {
			return nil
		}
		i = skipSpace(v, i+1) // past the ','
	}
	return fmt.Errorf("unexpected end of an object")
}

// eachElement calls fn with each element of the JSON array v, whose syntax is already checked.
func eachElement(v []byte, fn func(val []byte) error) error {
	i := skipSpace(v, 1)
	if i < len(v) && v[i] == ']' {
		return nil
	}
	for i < len(v) {
		start := i
		var err error
		if i, err = skipValue(v, i, 0); err != nil {
			return err
		}
		if err := fn(v[start:i]); err != nil {
			return err
		}
		i = skipSpace(v, i)
		if i >= len(v) || v[i] == ']' {
			return nil
		}
		i = skipSpace(v, i+1)
	}
	return fmt.Errorf("unexpected end of an array")
}
