package mail_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"fieldbrief/internal/i18n"
	"fieldbrief/views/mail"
)

// inLanguage is the technician's and the dispatcher's email as delivery
// makes them for a reader: the date and windows already in the reader's
// formats (delivery's reader and windows), the words from the catalog.
func inLanguage(l *i18n.Localizer, date, first string) (tech, disp mail.BriefingEmail) {
	tech, disp = technician(), sample()
	tech.L, disp.L = l, l
	tech.DateLabel, disp.DateLabel = date, date
	tech.Own.First = first
	for i := range tech.Own.Jobs {
		tech.Own.Jobs[i].StatusCode = "scheduled"
	}
	disp.Yesterday.Date, disp.Yesterday.Scheduled, disp.Yesterday.Completed = date, 2, 1
	return tech, disp
}

// Each language's subject, preheader and a body line, as a native speaker
// writes them (docs/i18n.md); plurals by each language's rules.
func TestEmailsInEachLanguage(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		lang, formats, date, first string
		subject, dispatcher        string
		html, text                 []string
		update                     string
		updateSummary              string
	}{
		{"en", "en-US", "Mon, Mar 9", "8:00\u202fAM at 500 W 2nd St",
			"Your day, Mon, Mar 9: 3 jobs, first 8:00\u202fAM at 500 W 2nd St · 1 overdue · 1 cancelled",
			"Northwind Heating & Air · briefing for Mon, Mar 9",
			[]string{">Your jobs (3)</h2>", ">Open your day</a>", ">Scheduled</p>", "Still open from before this day."},
			[]string{"NEEDS ACTION", "\nEmergencies (1)\n", "Yesterday (Mon, Mar 9): 1 of 2 scheduled jobs completed.", "\nROUTES\n"},
			"Changes to your day, Mon, Mar 9", "5 jobs changed on your day."},
		{"de", "de-DE", "Mo., 9. März", "um 08:00, 500 W 2nd St",
			"Ihr Tag, Mo., 9. März: 3 Aufträge, der erste um 08:00, 500 W 2nd St · 1 überfällig · 1 storniert",
			"Northwind Heating & Air · Briefing für Mo., 9. März",
			[]string{">Ihre Aufträge (3)</h2>", ">Ihren Tag öffnen</a>", ">Geplant</p>", "Noch offen aus den Tagen davor."},
			[]string{"HANDLUNGSBEDARF", "\nNotfälle (1)\n", "Gestern (Mo., 9. März): 1 von 2 geplanten Aufträgen erledigt.", "\nTOUREN\n"},
			"Änderungen an Ihrem Tag, Mo., 9. März", "5 Aufträge an Ihrem Tag haben sich geändert."},
		{"es", "es-US", "lun, 9 de mar", "a las 8:00\u202fa.m. en 500 W 2nd St",
			"Su día, lun, 9 de mar: 3 trabajos, el primero a las 8:00\u202fa.m. en 500 W 2nd St · 1 atrasado · 1 cancelado",
			"Northwind Heating & Air · resumen del día: lun, 9 de mar",
			[]string{">Sus trabajos (3)</h2>", ">Abrir su día</a>", ">Programado</p>", "Pendientes de días anteriores."},
			[]string{"REQUIERE ATENCIÓN", "\nEmergencias (1)\n", "Ayer (lun, 9 de mar): completados 1 de 2 trabajos programados.", "\nRUTAS\n"},
			"Cambios en su día, lun, 9 de mar", "Cambiaron 5 trabajos de su día."},
		{"fr", "fr-FR", "lun. 9 mars", "à 08:00, 500 W 2nd St",
			"Votre journée, lun. 9 mars\u202f: 3 interventions, la première à 08:00, 500 W 2nd St · 1 en retard · 1 annulée",
			"Northwind Heating & Air · briefing du lun. 9 mars",
			[]string{">Vos interventions (3)</h2>", ">Ouvrir votre journée</a>", ">Planifiée</p>", "Toujours ouvertes depuis les jours précédents."},
			[]string{"À TRAITER", "\nUrgences (1)\n", "Hier (lun. 9 mars)\u202f: 1/2 interventions prévues terminées.", "\nTOURNÉES\n"},
			"Changements dans votre journée, lun. 9 mars", "5 interventions de votre journée ont changé."},
	} {
		l := i18n.New(c.lang, c.formats)
		tech, disp := inLanguage(l, c.date, c.first)
		require.Equal(t, c.subject, tech.Subject(), c.lang)
		require.Equal(t, c.dispatcher, disp.Subject(), c.lang)
		html := render(t, tech)
		require.Contains(t, html, `<html lang="`+c.formats+`">`, c.lang)
		require.Contains(t, html, ">"+htmlEscape(c.subject)+"</div>", "%s: the preheader", c.lang)
		for _, s := range c.html {
			require.Contains(t, html, s, c.lang)
		}
		text := mail.Text(disp)
		for _, s := range c.text {
			require.Contains(t, text, s, c.lang)
		}
		u := sampleUpdate()
		u.L, u.DateLabel = l, c.date
		require.Equal(t, c.update, mail.UpdateSubject(l, u.DateLabel), c.lang)
		require.Contains(t, mail.UpdateText(u), c.updateSummary, c.lang)
	}

	// One job: the singular, and no "first".
	for lang, want := range map[string]string{
		"en": "1 job, 8:00\u202fAM at 1 Elm St", "de": "1 Auftrag, um 08:00, 1 Elm St",
		"es": "1 trabajo, a las 8:00\u202fa.m. en 1 Elm St", "fr": "1 intervention, à 08:00, 1 Elm St",
	} {
		l := i18n.New(lang, map[string]string{"en": "en-US", "de": "de-DE", "es": "es-US", "fr": "fr-FR"}[lang])
		e := technician()
		e.L, e.Own.Jobs, e.Own.Overdue, e.Own.Cancelled = l, e.Own.Jobs[:1], nil, nil
		e.Own.First = mail.VisitAt(l, l.Locale().Clock(8, 0), "1 Elm St")
		require.True(t, strings.HasSuffix(e.Subject(), ": "+want) || strings.HasSuffix(e.Subject(), "\u202f: "+want), "%s: %q", lang, e.Subject())
	}
}

func htmlEscape(s string) string { return strings.ReplaceAll(s, "&", "&amp;") }

// Every word of the emails comes from the catalog: rendered with the
// pseudo-locale, no visible text is outside its markers once the model's
// own data (names, addresses, dates and windows the caller formatted) are
// removed — views' TestCoveredPagesHaveNoTextOutsideTheCatalog, for mail.
func TestEmailsHaveNoTextOutsideTheCatalog(t *testing.T) {
	t.Parallel()
	pl := i18n.Pseudo()
	tech, disp := inLanguage(pl, "Mon 9 Mar", "")
	tech.Own.First = mail.VisitAt(pl, "08:00", "500 W 2nd St")
	tech.ZoneName, disp.ZoneName = "Eastern Time (New York)", "Eastern Time (New York)"
	disp.Cancelled, disp.MoreCancelled, disp.CancelledURL = []mail.Job{{ID: 9, Window: "16:00–17:00 EDT", Customer: "Gum Grocer", StatusCode: "cancelled"}}, 2, "https://x.test/c"
	disp.Routes[1].More, disp.Routes[1].MoreURL = 3, "https://x.test/r"
	for _, j := range []*[]mail.Job{&disp.ActionItems.Unassigned, &disp.ActionItems.Overdue, &disp.ActionItems.Emergencies, &disp.Routes[0].Jobs} {
		for i := range *j {
			(*j)[i].StatusCode, (*j)[i].Status = "in_progress", ""
		}
	}
	tech.Own.Overdue[0].StatusCode, tech.Own.Cancelled[0].StatusCode = "in_progress", "cancelled"
	short, noLink := tech, tech
	short.Shortened, short.Own.MoreJobs = true, 4
	noLink.DayURL = ""
	shortDisp := disp
	shortDisp.Shortened = true
	u := sampleUpdate()
	u.L = pl
	u.Items[0].Lines = []string{pl.T("mail.update.new_job")}
	u.Items[1].Lines = []string{pl.Tf("mail.update.pair", map[string]any{"Label": pl.T("mail.update.field.notes"), "Old": pl.T("mail.update.none"), "New": "Gate code 1234"})}
	u.Items[2].Lines = nil

	var fixtures []string
	addJobs := func(jobs []mail.Job) {
		for _, j := range jobs {
			fixtures = append(fixtures, j.WindowZone(), j.Customer, j.Address, j.Phone, j.Type)
			fixtures = append(fixtures, strings.Split(strings.ReplaceAll(j.Notes, "\r\n", "\n"), "\n")...)
		}
	}
	for _, e := range []mail.BriefingEmail{tech, disp} {
		fixtures = append(fixtures, e.OrgName, e.DateLabel, e.Timezone)
		addJobs(e.ActionItems.Emergencies)
		addJobs(e.ActionItems.Overdue)
		addJobs(e.ActionItems.Unassigned)
		addJobs(e.Cancelled)
		addJobs(e.Own.Jobs)
		addJobs(e.Own.Overdue)
		addJobs(e.Own.Cancelled)
		for _, r := range e.Routes {
			fixtures = append(fixtures, r.Technician, r.Phone)
			addJobs(r.Jobs)
		}
	}
	fixtures = append(fixtures, "Eastern Time (New York)", "Gate code 1234", "Dog in yard", u.OrgName, u.DateLabel, u.Timezone)
	for _, it := range u.Items {
		fixtures = append(fixtures, it.Window, it.Customer, it.Address)
	}
	// Longest first, so a fixture inside another does not leave its rest.
	for i := range fixtures {
		for j := i + 1; j < len(fixtures); j++ {
			if len(fixtures[j]) > len(fixtures[i]) {
				fixtures[i], fixtures[j] = fixtures[j], fixtures[i]
			}
		}
	}

	for name, e := range map[string]mail.BriefingEmail{
		"technician": tech, "technician, shortened": short, "technician, no day link": noLink,
		"dispatcher": disp, "dispatcher, shortened": shortDisp,
	} {
		var buf bytes.Buffer
		require.NoError(t, mail.HTML(e).Render(context.Background(), &buf), name)
		checkCatalogOnly(t, name, buf.String(), fixtures)
		checkTextCatalogOnly(t, name+" (text)", mail.Text(e), fixtures, e)
	}
	var buf bytes.Buffer
	require.NoError(t, mail.UpdateHTML(u).Render(context.Background(), &buf))
	checkCatalogOnly(t, "update", buf.String(), fixtures)
}

func checkCatalogOnly(t *testing.T, name, out string, fixtures []string) {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(out))
	require.NoError(t, err, name)
	n := 0
	var walk func(*html.Node)
	walk = func(nd *html.Node) {
		if nd.Type == html.TextNode && strings.TrimSpace(nd.Data) != "" {
			n++
			if rest := outside(nd.Data, fixtures); rest != "" {
				t.Errorf("%s: text outside the catalog: %q (in %q)", name, rest, nd.Data)
			}
		}
		for c := nd.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	require.Positive(t, n, name)
	require.Contains(t, out, i18n.MarkOpen, name)
}

// checkTextCatalogOnly checks the text part line by line; the links it
// writes out are data too.
func checkTextCatalogOnly(t *testing.T, name, text string, fixtures []string, e mail.BriefingEmail) {
	t.Helper()
	fx := append([]string{e.DayURL, e.BriefingURL, e.UnsubscribeURL, e.CancelledURL, "https://x.test/r"}, fixtures...)
	for _, line := range strings.Split(text, "\n") {
		if rest := outside(line, fx); rest != "" {
			t.Errorf("%s: text outside the catalog: %q (in %q)", name, rest, line)
		}
	}
}

// outside is what remains of s once the catalog's messages (between the
// pseudo-locale's markers, any case) and the fixtures are removed, when it
// has a letter or digit.
func outside(s string, fixtures []string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch string(r) {
		case i18n.MarkOpen:
			depth++
		case i18n.MarkClose:
			depth--
		default:
			if depth == 0 {
				b.WriteRune(r)
			}
		}
	}
	rest := b.String()
	for _, f := range fixtures {
		if f != "" {
			rest = strings.ReplaceAll(rest, f, "")
		}
	}
	if depth != 0 {
		return "unbalanced markers: " + s
	}
	if !strings.ContainsFunc(rest, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
		return ""
	}
	return strings.TrimSpace(rest)
}
