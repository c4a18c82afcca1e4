package fieldimport

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// The column-matching step (docs/field-data.md, "CSV import"): our fields on one side, the
// file's headers on the other. Headers are matched by the names offices
// use in the four languages, compared after normalizing (normHeader); a
// header that names no field is not imported (Jobber and Housecall Pro
// both let a file carry columns they ignore, and say so); a field two
// headers could be is ambiguous and taken from neither until the admin
// chooses. The admin's choice is remembered per org for the next file with
// the same header row (import_columns, migration 00027).

// synonyms are the header names of each field, besides the field's own
// name, as written in a spreadsheet; normHeader makes "Job #", "job no."
// and "JOB-NO" one. Within a kind no name belongs to two fields.
var synonyms = map[Kind]map[string][]string{
	Technicians: {
		"external_ref": {"ref", "reference", "id", "tech id", "technician id", "employee id", "employee #", "employee number",
			"referenz", "mitarbeiternummer", "personalnummer", "personal-nr", "referencia", "número de empleado", "id de empleado",
			"référence", "réf", "matricule", "identifiant", "techniker-nr", "mitarbeiter-id", "código", "código de técnico", "code technicien"},
		"name": {"full name", "technician", "technician name", "tech", "tech name", "employee", "employee name",
			"vollständiger name", "techniker", "mitarbeiter", "nombre", "nombre completo", "técnico",
			"nom", "nom complet", "technicien", "name des technikers", "nombre del técnico", "nom du technicien"},
		"email": {"e-mail", "mail", "email address", "e-mail address", "e-mail-adresse", "correo", "correo electrónico",
			"courriel", "adresse e-mail", "adresse électronique", "e-mail-adresse des technikers", "email", "mél"},
		"phone": {"telephone", "tel", "mobile", "cell", "cell phone", "phone number", "mobile phone",
			"telefon", "telefonnummer", "handy", "mobil", "mobilnummer", "teléfono", "celular", "móvil", "teléfono móvil",
			"téléphone", "tél", "portable", "numéro de téléphone"},
		"active":   {"enabled", "aktiv", "activo", "actif", "active?", "is active", "aktiviert", "habilitado", "activa", "active"},
		"language": {"lang", "sprache", "idioma", "langue", "preferred language", "bevorzugte sprache", "idioma preferido", "langue préférée"},
	},
	Jobs: {
		"external_ref": {"ref", "reference", "id", "job id", "job #", "job number", "job ref", "job reference",
			"work order", "work order #", "work order number", "wo #", "wo number", "invoice #",
			"auftrag", "auftragsnummer", "auftrags-nr", "auftragsnr", "referenz", "nummer",
			"referencia", "número", "número de trabajo", "orden de trabajo", "n.º de trabajo",
			"référence", "réf", "numéro", "numéro de travail", "numéro d'intervention", "bon de travail", "n° de travail", "n° d'intervention", "nº d'intervention",
			"auftrags-id", "vorgangsnummer", "id de trabajo", "número de orden", "numéro de bon", "id d'intervention"},
		"customer": {"customer name", "client", "client name", "name", "company", "account", "kunde", "kundenname", "name des kunden", "firma",
			"cliente", "nombre del cliente", "nombre", "empresa", "nom du client", "nom", "société", "customer", "auftraggeber", "kundin",
			"razón social", "client final"},
		"address": {"street", "street address", "service address", "location", "site", "job address", "adresse", "anschrift", "straße",
			"einsatzort", "dirección", "domicilio", "ubicación", "adresse du client", "lieu", "einsatzadresse", "lieferadresse",
			"dirección del servicio", "dirección del cliente", "adresse d'intervention", "adresse du chantier"},
		"customer_phone": {"phone", "customer phone", "client phone", "telephone", "tel", "mobile", "cell", "phone number",
			"telefon", "telefonnummer", "handy", "kundentelefon", "teléfono", "celular", "teléfono del cliente",
			"téléphone", "tél", "portable", "téléphone du client", "telefon kunde", "rufnummer", "móvil", "teléfono de contacto", "numéro de téléphone"},
		"date": {"job date", "scheduled date", "visit date", "service date", "appointment date", "day", "datum", "termin",
			"einsatzdatum", "fecha", "día", "fecha de visita", "jour", "date de visite", "date d'intervention", "termindatum", "auftragsdatum",
			"fecha del trabajo", "fecha de servicio", "fecha programada", "date prévue", "date du rendez-vous"},
		"arrival_from": {"start", "start time", "from", "arrival", "arrival from", "arrival window start", "window start",
			"time", "scheduled start", "begin", "beginn", "von", "startzeit", "uhrzeit", "ankunft ab", "zeit",
			"inicio", "hora", "hora de inicio", "desde", "hora de llegada", "début", "heure", "heure de début", "arrivée",
			"ab", "anfang", "startet", "llegada desde", "hora inicio", "arrivée dès", "heure d'arrivée", "à partir de", "start window"},
		"arrival_to": {"end", "end time", "to", "until", "arrival to", "arrival window end", "window end", "finish",
			"ende", "bis", "endzeit", "ankunft bis", "fin", "hora de fin", "hasta", "heure de fin", "jusqu'à",
			"arrival until", "end window", "endet", "llegada hasta", "hora final", "hora fin", "arrivée jusqu'à", "heure fin"},
		"job_type": {"type", "job type", "service", "service type", "work type", "category", "auftragsart", "art", "typ",
			"leistung", "tipo", "tipo de trabajo", "servicio", "type de travail", "type d'intervention", "prestation", "art des auftrags",
			"einsatzart", "tipo de servicio", "type de service", "type"},
		"status": {"state", "job status", "estado", "statut", "état", "auftragsstatus", "zustand", "estado del trabajo", "situación",
			"statut de l'intervention", "stand"},
		"technician_ref": {"tech", "technician", "assigned to", "assignee", "employee", "worker", "tech ref", "technician id",
			"technician ref", "techniker", "monteur", "mitarbeiter", "zugewiesen an", "técnico", "asignado a", "empleado",
			"technicien", "intervenant", "assigné à", "zuständig", "techniker-nr", "técnico asignado", "asignado", "technicien assigné",
			"tech #", "technician #", "assigned tech", "assigned technician", "responsable"},
		"emergency": {"urgent", "notfall", "dringend", "urgencia", "urgente", "urgence", "eilauftrag", "eilig", "emergencia", "en urgence", "emergency?"},
		"notes": {"note", "comments", "comment", "description", "instructions", "details", "job notes", "notizen", "bemerkung",
			"bemerkungen", "hinweise", "beschreibung", "notas", "comentarios", "descripción", "instrucciones",
			"remarques", "commentaires", "consignes", "notiz", "hinweis", "anmerkung", "anmerkungen", "kommentar", "kommentare",
			"nota", "observaciones", "observación", "comentario", "indicaciones", "remarque", "commentaire", "observations", "note interne"},
	},
}

// fieldByHeader is synonyms by normalized name, and each field's own name.
var fieldByHeader = func() map[Kind]map[string]string {
	out := map[Kind]map[string]string{}
	for _, k := range []Kind{Technicians, Jobs} {
		m := map[string]string{}
		for _, c := range Columns(k) {
			m[normHeader(c.Name)] = c.Name
		}
		for f, names := range synonyms[k] {
			for _, n := range names {
				if prev, dup := m[normHeader(n)]; dup && prev != f {
					panic("fieldimport: header " + n + " names " + prev + " and " + f)
				}
				m[normHeader(n)] = f
			}
		}
		out[k] = m
	}
	return out
}()

// normHeader is a header as matched: lower case, accents removed, "#" and
// "n°"/"nº" read as "number", everything but letters and digits dropped:
// "Job #", "job-no." and "JOB NUMBER" are all "jobnumber"; "Téléphone" is
// "telephone"; "E-Mail" is "email".
func normHeader(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.NewReplacer("#", " number ", "n°", " number ", "nº", " number ", "n.º", " number ").Replace(s)
	var words []string
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			words = append(words, b.String())
			b.Reset()
		}
	}
	for _, r := range norm.NFD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r): // accents, after NFD
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		default:
			flush()
		}
	}
	flush()
	// "No"/"Nr" as the last word of several is "number": "Job No.",
	// "Auftrags-Nr".
	if n := len(words); n > 1 && (words[n-1] == "no" || words[n-1] == "nr") {
		words[n-1] = "number"
	}
	return strings.Join(words, "")
}

// NotInFile is a field's index when the file has no column for it.
const NotInFile = -1

// Mapping is, for each of our fields by name, the index of the file's
// column that holds it, or NotInFile.
type Mapping map[string]int

// FieldMatch is one of our fields in the columns step.
type FieldMatch struct {
	Name      string
	Required  bool
	Index     int   // the file's column, or NotInFile
	Ambiguous []int // the file's columns that could each be it (none was taken)
}

// Match is the columns step of one file.
type Match struct {
	Kind       Kind
	Header     []string // the file's headers as written
	Fields     []FieldMatch
	Unused     []int  // the file's columns no field takes (not imported)
	Remembered bool   // the org's remembered mapping for this header row was used
	HeaderHash string // what the mapping is remembered under
}

// NeedsReview reports whether the columns step is shown open: a required
// field not found, a field two columns could be, or a column not imported
// (unless the admin chose these columns: then they have seen it).
func (m *Match) NeedsReview() bool {
	if len(m.Unused) > 0 && !m.Remembered {
		return true
	}
	for _, f := range m.Fields {
		if len(f.Ambiguous) > 0 || (f.Required && f.Index == NotInFile) {
			return true
		}
	}
	return false
}

// Mapping is the match as a Mapping.
func (m *Match) Mapping() Mapping {
	out := Mapping{}
	for _, f := range m.Fields {
		out[f.Name] = f.Index
	}
	return out
}

// HeaderHash is what a header row's mapping is remembered under: the
// normalized names, in order, hashed (so two files that only differ in
// case or spacing share one).
func HeaderHash(header []string) string {
	h := sha256.New()
	for _, name := range header {
		h.Write([]byte(normHeader(name) + "\x1f" + strings.ToLower(strings.TrimSpace(name)) + "\x1e"))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// matchHeader matches the file's header to kind's fields: remembered when
// it fits the header, otherwise automatically.
func matchHeader(k Kind, header []string, remembered Mapping) Match {
	m := Match{Kind: k, Header: header, HeaderHash: HeaderHash(header)}
	cols := Columns(k)
	if remembered != nil && remembered.fits(k, len(header)) {
		m.Remembered = true
		for _, c := range cols {
			m.Fields = append(m.Fields, FieldMatch{Name: c.Name, Required: c.Required, Index: remembered[c.Name]})
		}
	} else {
		candidates := map[string][]int{}
		for i, h := range header {
			if f, ok := fieldByHeader[k][normHeader(h)]; ok {
				candidates[f] = append(candidates[f], i)
			}
		}
		for _, c := range cols {
			fm := FieldMatch{Name: c.Name, Required: c.Required, Index: NotInFile}
			switch ids := candidates[c.Name]; len(ids) {
			case 0:
			case 1:
				fm.Index = ids[0]
			default:
				fm.Ambiguous = ids
			}
			m.Fields = append(m.Fields, fm)
		}
	}
	used := map[int]bool{}
	for _, f := range m.Fields {
		used[f.Index] = true
		for _, i := range f.Ambiguous {
			used[i] = true
		}
	}
	for i, h := range header {
		// An unnamed column with no field is a spreadsheet's trailing
		// empty column: nothing to say about it.
		if !used[i] && strings.TrimSpace(h) != "" {
			m.Unused = append(m.Unused, i)
		}
	}
	return m
}

// fits reports whether a mapping names every field of k, each with a
// column of the header or NotInFile, and no column twice.
func (mp Mapping) fits(k Kind, n int) bool {
	taken := map[int]bool{}
	for _, c := range Columns(k) {
		i, ok := mp[c.Name]
		if !ok || i < NotInFile || i >= n {
			return false
		}
		if i != NotInFile {
			if taken[i] {
				return false
			}
			taken[i] = true
		}
	}
	return len(mp) == len(Columns(k))
}
