package model

// TxKey is one key of a transaction: as read, and as the transaction
// left it.
type TxKey struct {
	Raw  Item // the metadata item as read; nil when absent
	Orig Meta // what raw says (live: an expired key was purged first)
	Typ  KeyType
	Card int64
	Exp  int64
	// Full: every member item of orig.typ is in mem, so a member that is
	// not there does not exist.
	Full   bool
	ExpSet bool // the transaction changed the expiry
	// Touched: a command of the transaction changed the key, which stores
	// a new version token (WATCH) even when the changes cancel out, as
	// Redis's watched keys see every write (SREM a then SADD a).
	Touched bool
	Dmn     int64 // the change to mn (memberttl.go) of the commit's member writes
	Mem     map[MemKey]*TxMember
}

type MemKey struct {
	Typ    KeyType
	Member string
}

type TxMember struct {
	OrigIX  []byte // nil: absent when read (a set member read has an empty one)
	Ix      []byte // nil: absent now
	Score   float64
	Present bool
	// OrigMX is the member's expiry when read (memberttl.go; 0: none),
	// mx its expiry now: a member removed and added again is a new one,
	// with the expiry its adding write gives (none for SADD), as outside a
	// transaction.
	OrigMX, Mx int64
}

// ReadMember is the state of a member whose item reads it (index value ix;
// a set member has none, and an empty one says it was read present).
func ReadMember(typ KeyType, it Item) *TxMember {
	ix := BytesAttr(it, AttrIX)
	if ix == nil {
		ix = []byte{}
	}
	mx := MemberExp(it)
	return &TxMember{OrigIX: ix, Ix: ix, Present: true, Score: ScoreIfZ(typ, ix), OrigMX: mx, Mx: mx}
}

func ScoreIfZ(typ KeyType, ix []byte) float64 {
	if typ == TypeZSet && len(ix) >= 8 {
		return ScoreOfIX(ix)
	}
	return 0
}

// Add makes m (of k, type typ) present with index value ix.
func (k *TxKey) Add(typ KeyType, m *TxMember, ix []byte) {
	if k.Typ == TypeNone {
		k.Typ, k.Exp = typ, 0
	}
	if !m.Present {
		k.Card++
		if typ == TypeSet && m.OrigIX != nil {
			ix = m.OrigIX // a set member removed and added again is left as it was
		}
	}
	k.Touched = k.Touched || !m.Present || string(m.Ix) != string(ix)
	m.Present, m.Ix, m.Score = true, ix, ScoreIfZ(typ, ix)
}

// Remove makes m absent; the key goes when its last member does.
func (k *TxKey) Remove(m *TxMember) {
	if !m.Present {
		return
	}
	m.Present, m.Ix, m.Mx = false, nil, 0
	k.Card--
	k.Touched = true
	if k.Card == 0 {
		k.Gone()
	}
}

// Gone marks the key missing: every member it had is known absent.
func (k *TxKey) Gone() {
	for _, m := range k.Mem {
		m.Present, m.Ix, m.Mx = false, nil, 0
	}
	k.Typ, k.Card, k.Exp, k.Full, k.Touched = TypeNone, 0, 0, true, true
}
