package redimo

// The checks every command makes of its keys and members before it reads
// or writes anything: the limits DynamoDB's item size sets.

const (
	// MaxKeyLen is the longest key, in bytes: as MaxMemberLen, what a
	// metadata item holds with room to spare. Keys longer than 2047 bytes
	// cost a little more to list (SCAN): see "Long keys" in internal/model/keys.go.
	MaxKeyLen = 400_000

	// MaxMemberLen is the longest member, in bytes: what one DynamoDB item
	// (400 KB, every attribute included) holds beside the keys, with room
	// to spare. Redis allows 512 MB; DynamoDB's item limit makes that
	// impossible here. Members longer than 1015 bytes cost more: see
	// "Long members" in internal/model/keys.go and the README's cost table.
	MaxMemberLen = 400_000
)

// checkKey rejects a key DynamoDB cannot hold.
func checkKey(cmd, key string) error {
	if len(key) > MaxKeyLen {
		return argError(cmd, "key", key, ErrKeyTooLong)
	}
	return nil
}

// checkMember rejects a member DynamoDB cannot hold.
func checkMember(cmd, member string) error {
	if len(member) > MaxMemberLen {
		return argError(cmd, "member", member, ErrMemberTooLong)
	}
	return nil
}

// checkKeyList validates the keys of a command that takes one or more: none
// is a syntax error (Redis: wrong number of arguments), and each must be a
// valid key.
func checkKeyList(cmd string, keys []string) error {
	if len(keys) == 0 {
		return argError(cmd, "keys", "", ErrSyntax)
	}
	return checkKeys(cmd, keys...)
}

func checkKeys(cmd string, keys ...string) error {
	for _, k := range keys {
		if err := checkKey(cmd, k); err != nil {
			return err
		}
	}
	return nil
}

func checkMembers(cmd string, members []string) error {
	for _, m := range members {
		if err := checkMember(cmd, m); err != nil {
			return err
		}
	}
	return nil
}

// checkKeyMembers validates the key and a non-empty list of members (for
// reads and writes alike).
func (c *Client) checkKeyMembers(cmd, key string, members []string) error {
	if len(members) == 0 {
		return argError(cmd, "members", "", ErrSyntax)
	}
	if err := checkKey(cmd, key); err != nil {
		return err
	}
	return checkMembers(cmd, members)
}
