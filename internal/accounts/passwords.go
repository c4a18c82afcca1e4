package accounts

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/trustelem/zxcvbn"
	"golang.org/x/crypto/argon2"

	"fieldbrief/internal/apperr"
)

// MaxPasswordLen is the longest password, in bytes.
const MaxPasswordLen = 1024

// Argon2 is the cost of hashing a new password with argon2id. The zero
// value is the production cost; tests pass a cheap one in Store.Hashing.
// Verifying reads the cost recorded in the stored hash, so hashes made at
// any cost keep verifying and the cost can be raised later.
type Argon2 struct {
	Time      uint32 // passes
	MemoryKiB uint32
	Threads   uint8
}

// productionArgon2 is OWASP's 19 MiB / 2 passes / 1 lane.
var productionArgon2 = Argon2{Time: 2, MemoryKiB: 19 * 1024, Threads: 1}

const argonKeyLen = 32

func (p Argon2) orDefault() Argon2 {
	if p == (Argon2{}) {
		return productionArgon2
	}
	return p
}

// MinPasswordLen is the fewest characters (not bytes) of a password a
// person chooses. MinPasswordScore is the lowest zxcvbn score it may have.
// docs/accounts.md ("Passwords: the rule") says why these two.
const (
	MinPasswordLen   = 12
	MinPasswordScore = 3
)

// strengthRunes is how much of a password zxcvbn reads: its matching is
// superlinear (1,000 characters take ~18 s, 100 take ~10 ms), so a long
// password is judged by its first 100 characters, which is Dropbox's own
// advice for zxcvbn. A password whose first 100 characters are weak is
// weak.
const strengthRunes = 100

// checkPassword is the bound every stored password keeps: present and at
// most MaxPasswordLen bytes. UpsertUser (seeding: the demo, tests) checks
// only this; every way a person sets a password checks CheckNewPassword.
func checkPassword(password string) error {
	if password == "" || len(password) > MaxPasswordLen {
		return apperr.FieldRefusal("password", "password_required", apperr.Args{"Max": MaxPasswordLen})
	}
	return nil
}

// CheckNewPassword is the one rule for a password a person chooses
// (accepting an invite, a reset, the profile, create-user): at most
// MaxPasswordLen bytes, at least MinPasswordLen characters, and a zxcvbn
// score of at least MinPasswordScore, the score counting the person's own
// email and name (userInputs) as known words, so "ada@acme.test1234" is
// weak for ada@acme.test. The refusal is a field error on "password" with
// a stable code: password_required, password_short or password_common.
func CheckNewPassword(password string, userInputs ...string) error {
	if err := checkPassword(password); err != nil {
		return err
	}
	if utf8.RuneCountInString(password) < MinPasswordLen {
		return apperr.FieldRefusal("password", "password_short", apperr.Args{"Count": MinPasswordLen})
	}
	judged := password
	if utf8.RuneCountInString(judged) > strengthRunes {
		judged = string([]rune(judged)[:strengthRunes])
	}
	if zxcvbn.PasswordStrength(judged, knownWords(userInputs)).Score < MinPasswordScore {
		return apperr.FieldRefusal("password", "password_common", nil)
	}
	return nil
}

// knownWords are the user inputs zxcvbn counts as guessable: each input
// whole and split at every character that is not a letter or digit, so
// "ada.lovelace@acme.test" gives "ada", "lovelace", "acme" and "test" too,
// and the product's own name.
func knownWords(inputs []string) []string {
	words := []string{"fieldbrief"}
	for _, in := range inputs {
		in = strings.ToLower(strings.TrimSpace(in))
		if in == "" {
			continue
		}
		words = append(words, in)
		for _, w := range strings.FieldsFunc(in, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			if len(w) >= 3 {
				words = append(words, w)
			}
		}
	}
	return words
}

// asField is err, a field problem of "password", as the same problem of
// field (the profile form names its input new_password).
func asField(err error, field string) error {
	e, ok := apperr.As(err)
	if !ok || len(e.Fields) != 1 {
		return err
	}
	f := e.Fields[0]
	return apperr.FieldRefusal(field, f.Code, f.Args)
}

// hash returns the encoded argon2id hash of password at cost p.
func (p Argon2) hash(password string) (string, error) {
	p = p.orDefault()
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("password salt: %w", err)
	}
	key := argon2.IDKey([]byte(password), salt, p.Time, p.MemoryKiB, p.Threads, argonKeyLen)
	enc := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, p.MemoryKiB, p.Time, p.Threads, enc.EncodeToString(salt), enc.EncodeToString(key)), nil
}

// dummyHashes holds, per cost, what Authenticate verifies an unknown
// email's password against: hashed on first use, not at every process
// start, and at the store's own cost so both answers take as long.
var dummyHashes sync.Map // Argon2 → string

func (p Argon2) dummyHash() string {
	p = p.orDefault()
	if h, ok := dummyHashes.Load(p); ok {
		return h.(string)
	}
	h, _ := p.hash("not a real password")
	stored, _ := dummyHashes.LoadOrStore(p, h)
	return stored.(string)
}

// verifyPassword checks a password against an encoded argon2id hash, using
// the parameters recorded in the hash so they can be raised later.
func verifyPassword(encoded, password string) bool {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false
	}
	var version int
	var memory, time uint32
	var threads uint8
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &memory, &time, &threads); err != nil {
		return false
	}
	enc := base64.RawStdEncoding
	salt, err1 := enc.DecodeString(parts[4])
	want, err2 := enc.DecodeString(parts[5])
	if err1 != nil || err2 != nil {
		return false
	}
	got := argon2.IDKey([]byte(password), salt, time, memory, threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}
