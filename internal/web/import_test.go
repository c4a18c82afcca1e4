package web

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"fieldbrief/internal/audit"
	"fieldbrief/internal/fieldimport"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/tenants"
)

const importPath = "/orgs/acme/import"

const techCSV = "external_ref,name,email,phone,active\r\nT-1,Dana Reyes,dana@example.com,555 0100,yes\r\nT-2,Sam Lee,,,no\r\n"

// upload posts a file as the import form does (multipart, _csrf from the
// cookie jar unless noCSRF).
func (c *client) upload(path, filename string, content []byte, noCSRF bool) response {
	c.t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	if !noCSRF {
		token := c.csrfToken()
		if token == "" {
			c.get("/login")
			token = c.csrfToken()
		}
		require.NoError(c.t, w.WriteField("_csrf", token))
	}
	part, err := w.CreateFormFile("file", filename)
	require.NoError(c.t, err)
	_, err = part.Write(content)
	require.NoError(c.t, err)
	require.NoError(c.t, w.Close())
	return c.postRaw(path, w.FormDataContentType(), &body)
}

// postRaw posts a raw body.
func (c *client) postRaw(path, contentType string, body io.Reader) response {
	c.t.Helper()
	req, err := http.NewRequest(http.MethodPost, c.base+path, body)
	require.NoError(c.t, err)
	req.Header.Set("Content-Type", contentType)
	res, err := c.hc.Do(req)
	require.NoError(c.t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(c.t, err)
	return response{Code: res.StatusCode, Body: string(b), Header: res.Header}
}

// previewOf uploads a file and follows the redirect to its preview.
func previewOf(t *testing.T, c *client, kind, content string) (string, htmlDoc) {
	t.Helper()
	r := c.upload(importPath+"/"+kind, kind+".csv", []byte(content), false)
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	loc := r.Header.Get("Location")
	require.True(t, strings.HasPrefix(loc, importPath+"/"+kind+"/"), loc)
	r = c.get(loc)
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	return loc, parseDoc(t, r.Body)
}

// saveImport posts the preview's own save form.
func saveImport(t *testing.T, c *client, loc string, doc htmlDoc) response {
	t.Helper()
	form := doc.byID("import-save")
	require.NotNil(t, form, "no save form")
	require.Equal(t, loc, form.attr("action"))
	digest := form.find(attrIs("name", "digest")).attr("value")
	return c.post(loc, url.Values{"digest": {digest}})
}

func (f *fixture) technicianRefs(o tenants.Org) []string {
	f.t.Helper()
	rows, err := f.db.Query(context.Background(), `SELECT external_ref FROM technicians WHERE org_id = $1 ORDER BY external_ref`, o.ID)
	require.NoError(f.t, err)
	var refs []string
	for rows.Next() {
		var ref string
		require.NoError(f.t, rows.Scan(&ref))
		refs = append(refs, ref)
	}
	require.NoError(f.t, rows.Err())
	return refs
}

// rows counts a table's rows.
func (f *fixture) rows(table string) int {
	f.t.Helper()
	return f.count(`SELECT count(*) FROM ` + table)
}

// actions maps each previewed row's number to its action.
func actions(doc htmlDoc) map[string]string {
	out := map[string]string{}
	for _, tr := range doc.findAll(func(n *html.Node) bool { _, ok := hasAttr(n, "data-action"); return ok }) {
		out[tr.attr("data-row")] = tr.attr("data-action")
	}
	return out
}

func TestImportTechniciansThenAgain(t *testing.T) {
	t.Parallel()
	f := setup(t)
	admin := f.as(&f.adminA)

	r := admin.get(importPath)
	require.Equal(t, http.StatusOK, r.Code)
	page := parseDoc(t, r.Body)
	require.NotNil(t, page.find(attrIs("action", importPath+"/jobs")))
	require.Contains(t, page.byID("import-jobs").text(), "Technician")
	require.NotContains(t, page.byID("import-jobs").text(), "technician_ref", "our fields by their names, never code names")

	loc, doc := previewOf(t, admin, "technicians", "\uFEFF"+techCSV)
	require.Equal(t, map[string]string{"2": "create", "3": "create"}, actions(doc))
	require.Empty(t, f.technicianRefs(f.orgA), "a preview saves nothing")
	r = saveImport(t, admin, loc, doc)
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.Equal(t, importPath+"?notice=imported&created=2&updated=0&unchanged=0", r.Header.Get("Location"))
	require.Equal(t, []string{"T-1", "T-2"}, f.technicianRefs(f.orgA))
	require.Contains(t, admin.get(r.Header.Get("Location")).Body, "Imported: 2 new, 0 updated, 0 unchanged.")

	// The same file again changes nothing.
	// An upload is used up by its save.
	require.Equal(t, http.StatusNotFound, admin.get(loc).Code)
	require.Equal(t, http.StatusNotFound, saveImport(t, admin, loc, doc).Code)

	// The same file again changes nothing: the preview says so and offers
	// no save.
	_, doc = previewOf(t, admin, "technicians", techCSV)
	require.Equal(t, map[string]string{"2": "unchanged", "3": "unchanged"}, actions(doc))
	require.NotNil(t, doc.byID("import-nothing"))
	require.Nil(t, doc.byID("import-save"))
}

// Errors are listed by row and column; there is no save button, and a save
// posted anyway saves nothing.
func TestImportJobsErrorsAndZone(t *testing.T) {
	t.Parallel()
	f := setup(t)
	saveConfig(t, f, f.orgA.ID, `{"briefing":{"timezone":"America/New_York","schedule_local_time":"06:00"}}`)
	admin := f.as(&f.adminA)
	file := "external_ref,customer,date,arrival_from,arrival_to,technician_ref\n" +
		"J-1,Ann,2026-03-08,02:30,04:00,\n" + // spring-forward gap in New York
		"J-2,Bob,2026-03-09,08:00,10:00,G-1\n" + // globex's technician: never resolves
		"J-3,Cy,2026-03-09,08:00,10:00,\n"
	f.importFile(f.orgB, "technicians", "external_ref,name\nG-1,Globex tech\n")

	loc, doc := previewOf(t, admin, "jobs", file)
	require.Nil(t, doc.byID("import-save"))
	require.Equal(t, map[string]string{"2": "error", "3": "error", "4": "create"}, actions(doc))
	probs := doc.byID("import-problems").findAll(tagIs("tr"))[1:]
	require.Len(t, probs, 2)
	require.Equal(t, "2", probs[0].attr("data-row"))
	require.Equal(t, "arrival_from", probs[0].attr("data-column"))
	require.Contains(t, probs[0].text(), "does not exist in America/New_York")
	require.Equal(t, "technician_ref", probs[1].attr("data-column"))
	r := admin.post(loc, url.Values{"digest": {"anything"}})
	require.Equal(t, http.StatusUnprocessableEntity, r.Code)
	require.Equal(t, 0, f.rows("jobs"))
}

// importFile imports a file for o directly, as its first admin would.
func (f *fixture) importFile(o tenants.Org, kind, content string) {
	f.t.Helper()
	k, _ := fieldimport.ParseKind(kind)
	s := &fieldimport.Store{DB: f.db}
	ctx := context.Background()
	var uid int64
	require.NoError(f.t, f.db.QueryRow(ctx, `SELECT user_id FROM memberships WHERE org_id = $1 AND role = 'admin' LIMIT 1`, o.ID).Scan(&uid))
	up, err := s.SaveUpload(ctx, o.ID, uid, k, "f.csv", []byte(content), f.clock.Now())
	require.NoError(f.t, err)
	zone, err := schedule.LoadZone("UTC")
	require.NoError(f.t, err)
	p, err := s.Preview(ctx, up, zone, f.clock.Now(), false)
	require.NoError(f.t, err)
	_, err = s.Save(ctx, audit.System, o.ID, uid, k, up.ID, p.Digest, zone, f.clock.Now(), false)
	require.NoError(f.t, err)
}

// Admins only; an upload is its uploader's alone; every write needs CSRF.
func TestImportAccess(t *testing.T) {
	t.Parallel()
	f := setup(t)
	admin := f.as(&f.adminA)
	loc, _ := previewOf(t, admin, "technicians", techCSV)
	admin2 := f.member(f.orgA, "admin2@acme.test", tenants.RoleAdmin)

	for _, tc := range []struct {
		who  string
		c    *client
		want int
	}{
		{"member", f.as(&f.memberA), http.StatusForbidden},
		{"staff", f.as(&f.staff), http.StatusForbidden},
		{"other org's admin", f.as(&f.adminB), http.StatusNotFound},
	} {
		t.Run(tc.who, func(t *testing.T) {
			require.Equal(t, tc.want, tc.c.get(importPath).Code)
			require.Equal(t, tc.want, tc.c.get(importPath+"/jobs/template.csv").Code)
			require.Equal(t, tc.want, tc.c.upload(importPath+"/jobs", "j.csv", []byte(techCSV), false).Code)
			require.Equal(t, tc.want, tc.c.get(loc).Code)
			require.Equal(t, tc.want, tc.c.post(loc, url.Values{"digest": {"x"}}).Code)
		})
	}
	// Another admin of the org, or another org's admin under their own org,
	// can't reach the upload: it is its uploader's.
	other := strings.Replace(loc, importPath, "/orgs/globex/import", 1)
	for _, tc := range []struct {
		c    *client
		path string
	}{{f.as(&admin2), loc}, {f.as(&f.adminB), other}} {
		require.Equal(t, http.StatusNotFound, tc.c.get(tc.path).Code)
		require.Equal(t, http.StatusNotFound, tc.c.post(tc.path, url.Values{"digest": {"x"}}).Code)
	}
	require.Empty(t, f.technicianRefs(f.orgA))
	require.Equal(t, 1, f.rows("csv_uploads"))

	r := f.anon().get(importPath)
	require.Equal(t, http.StatusSeeOther, r.Code)
	require.Equal(t, http.StatusForbidden, admin.upload(importPath+"/technicians", "t.csv", []byte(techCSV), true).Code)
	require.Equal(t, http.StatusForbidden, admin.postNoCSRF(loc, url.Values{"digest": {"x"}}).Code)
	require.Equal(t, 1, f.rows("csv_uploads"))
	require.Empty(t, f.technicianRefs(f.orgA))
	require.Equal(t, http.StatusNotFound, admin.get(importPath+"/widgets/template.csv").Code)
}

func TestImportTemplate(t *testing.T) {
	t.Parallel()
	f := setup(t)
	r := f.as(&f.adminA).get(importPath + "/jobs/template.csv")
	require.Equal(t, http.StatusOK, r.Code)
	require.Equal(t, "text/csv; charset=utf-8", r.Header.Get("Content-Type"))
	require.Contains(t, r.Header.Get("Content-Disposition"), `filename="jobs-template.csv"`)
	require.True(t, strings.HasPrefix(r.Body, "\uFEFFJob number,Customer,Address,Customer phone,Date,Arrival from,Arrival until,"), r.Body)
}

// The upload route takes files up to 5 MB (other forms stay at 64 KiB);
// larger files and longer ones are refused with a message, nothing stored.
func TestImportUploadLimits(t *testing.T) {
	t.Parallel()
	f := setup(t)
	admin := f.as(&f.adminA)

	var rows bytes.Buffer
	rows.WriteString("external_ref,name\n")
	for i := 0; rows.Len() < 200<<10; i++ {
		fmt.Fprintf(&rows, "T-%d,Technician %d\n", i, i)
	}
	r := admin.upload(importPath+"/technicians", "t.csv", rows.Bytes(), false)
	require.Equal(t, http.StatusSeeOther, r.Code, "200 KiB is over the forms' cap but fine here")

	big := append([]byte("external_ref,name\nT-1,"), bytes.Repeat([]byte("x"), fieldimport.MaxBytes)...)
	r = admin.upload(importPath+"/technicians", "big.csv", big, false)
	require.Equal(t, http.StatusRequestEntityTooLarge, r.Code)
	require.Contains(t, r.Body, "larger than 5 MB")

	huge := append([]byte("external_ref,name\nT-1,"), bytes.Repeat([]byte("x"), 2*fieldimport.MaxBytes)...)
	r = admin.upload(importPath+"/technicians", "huge.csv", huge, false)
	require.Equal(t, http.StatusRequestEntityTooLarge, r.Code)
	require.Contains(t, r.Body, "larger than 5 MB")

	var long bytes.Buffer
	long.WriteString("external_ref,name\n")
	for i := range fieldimport.MaxRows + 1 {
		fmt.Fprintf(&long, "%d,n\n", i)
	}
	r = admin.upload(importPath+"/technicians", "long.csv", long.Bytes(), false)
	require.Equal(t, http.StatusUnprocessableEntity, r.Code)
	require.Contains(t, r.Body, "more than 50,000 rows")

	require.Equal(t, 1, f.rows("csv_uploads"), "only the first one was kept")

	r = admin.postRaw(importPath+"/technicians", "multipart/form-data; boundary=x", bytes.NewReader(nil))
	require.Equal(t, http.StatusBadRequest, r.Code)
}

// seedUpload gives acme's admin a jobs upload with id "1", so their GET of
// /import/jobs/:id finds it and a 404 can only mean "no access".
func seedUpload(t *testing.T, f *fixture) {
	t.Helper()
	_, err := f.db.Exec(context.Background(), `
		INSERT INTO csv_uploads (id, org_id, user_id, kind, filename, content, sha256, created_at, expires_at)
		VALUES ('1', $1, $2, 'jobs', 'jobs.csv', $3, '', $4, $5)`,
		f.orgA.ID, f.adminA.ID, fieldimport.Template(fieldimport.Jobs), f.clock.Now(), f.clock.Now().Add(fieldimport.UploadTTL))
	require.NoError(t, err)
}

// A save that would not do what its preview showed is refused with the new
// preview (409), which can then be saved.
func TestImportSaveConflict(t *testing.T) {
	t.Parallel()
	f := setup(t)
	admin := f.as(&f.adminA)
	loc, doc := previewOf(t, admin, "technicians", techCSV)
	f.importFile(f.orgA, "technicians", "external_ref,name\nT-2,Someone else\n")

	r := saveImport(t, admin, loc, doc)
	require.Equal(t, http.StatusConflict, r.Code)
	again := parseDoc(t, r.Body)
	require.Contains(t, again.byID("import-conflict").text(), "saved changes to these rows after this preview")
	require.Equal(t, map[string]string{"2": "create", "3": "update"}, actions(again))
	require.Equal(t, []string{"T-2"}, f.technicianRefs(f.orgA), "nothing saved")

	r = saveImport(t, admin, loc, again)
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.Equal(t, importPath+"?notice=imported&created=1&updated=1&unchanged=0", r.Header.Get("Location"))
}

// A header row over the bounds refuses the upload before it is parsed
// (docs/field-data.md, "CSV import"): 422 with the reason in the org's
// language, nothing stored; a row over them is a problem on the preview.
func TestImportUploadWideHeader(t *testing.T) {
	t.Parallel()
	f := setup(t)
	admin := f.as(&f.adminA)

	r := admin.upload(importPath+"/technicians", "commas.csv", bytes.Repeat([]byte{','}, fieldimport.MaxBytes), false)
	require.Equal(t, http.StatusUnprocessableEntity, r.Code)
	require.Contains(t, r.Body, "The first row is longer than 64 KB, so the file was not read.")

	wide := "external_ref,name" + strings.Repeat(",x", fieldimport.MaxColumns) + "\nT-1,Dana\n"
	r = admin.upload(importPath+"/jobs", "wide.csv", []byte(wide), false)
	require.Equal(t, http.StatusUnprocessableEntity, r.Code)
	require.Contains(t, r.Body, "The first row has more than 200 columns, so the file was not read.")

	f.setLocale(f.orgA.ID, "de-DE")
	r = admin.upload(importPath+"/jobs", "wide.csv", []byte(wide), false)
	require.Equal(t, http.StatusUnprocessableEntity, r.Code)
	require.Contains(t, r.Body, "Die erste Zeile hat mehr als 200 Spalten, daher wurde die Datei nicht gelesen.")
	require.Zero(t, f.rows("csv_uploads"), "nothing stored")

	// An upload stored before the bounds (or read with a delimiter chosen
	// on its preview that makes its header too wide) is refused the same
	// way when its preview reads it again.
	_, err := f.db.Exec(context.Background(), `
		INSERT INTO csv_uploads (id, org_id, user_id, kind, filename, content, sha256, created_at, expires_at)
		VALUES ('old', $1, $2, 'jobs', 'wide.csv', $3, '', $4, $5)`,
		f.orgA.ID, f.adminA.ID, []byte(wide), f.clock.Now(), f.clock.Now().Add(fieldimport.UploadTTL))
	require.NoError(t, err)
	r = admin.get(importPath + "/jobs/old")
	require.Equal(t, http.StatusUnprocessableEntity, r.Code)
	require.Contains(t, r.Body, "Die erste Zeile hat mehr als 200 Spalten, daher wurde die Datei nicht gelesen.")
	require.Contains(t, r.Body, `id="import-jobs"`, "on the import page")
}
