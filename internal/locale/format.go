package locale

import (
	"strconv"
	"strings"
	"time"
)

// format writes t by a CLDR date pattern (Unicode TR35, "Date Format
// Patterns"). It is our own because Go has none: time.Format knows no
// localised names and golang.org/x/text formats no dates. It interprets
// the letters CLDR's patterns for the supported locales use — y yy yyyy,
// M MM MMM MMMM (and L), d dd, E EEE EEEE (and c), h hh H HH, m mm, a —
// and quoted literals ('de', 'h', ” for a quote); the generator refuses
// a pattern with any other letter, so a new CLDR release cannot slip one
// past this function.
func (l Locale) format(pattern string, t time.Time) string {
	d := l.data()
	var b strings.Builder
	for i := 0; i < len(pattern); {
		c := pattern[i]
		if c == '\'' { // quoted text; '' is a quote, in or out of it
			i++
			if i < len(pattern) && pattern[i] == '\'' {
				b.WriteByte('\'')
				i++
				continue
			}
			for i < len(pattern) {
				if pattern[i] == '\'' {
					if i+1 < len(pattern) && pattern[i+1] == '\'' {
						b.WriteByte('\'')
						i += 2
						continue
					}
					i++
					break
				}
				b.WriteByte(pattern[i])
				i++
			}
			continue
		}
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			b.WriteByte(c)
			i++
			continue
		}
		n := 1
		for i+n < len(pattern) && pattern[i+n] == c {
			n++
		}
		i += n
		switch c {
		case 'y':
			y := t.Year()
			if n == 2 {
				b.WriteString(pad(y%100, 2))
			} else {
				b.WriteString(pad(y, n))
			}
		case 'M', 'L':
			switch {
			case n >= 4:
				b.WriteString(d.months[1][t.Month()-1])
			case n == 3:
				b.WriteString(d.months[0][t.Month()-1])
			default:
				b.WriteString(pad(int(t.Month()), n))
			}
		case 'd':
			b.WriteString(pad(t.Day(), n))
		case 'E', 'c':
			if n >= 4 {
				b.WriteString(d.days[1][t.Weekday()])
			} else {
				b.WriteString(d.days[0][t.Weekday()])
			}
		case 'h':
			h := t.Hour() % 12
			if h == 0 {
				h = 12
			}
			b.WriteString(pad(h, n))
		case 'H':
			b.WriteString(pad(t.Hour(), n))
		case 'm':
			b.WriteString(pad(t.Minute(), n))
		case 'a':
			if t.Hour() < 12 {
				b.WriteString(d.am)
			} else {
				b.WriteString(d.pm)
			}
		default:
			// Not reached with generated patterns (gen checks them);
			// written back as is rather than dropped.
			b.WriteString(strings.Repeat(string(c), n))
		}
	}
	return b.String()
}

func pad(n, width int) string {
	s := strconv.Itoa(n)
	for len(s) < width {
		s = "0" + s
	}
	return s
}
