package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"fieldbrief/internal/schedule"
	"fieldbrief/internal/snapshot"
	"fieldbrief/views/mail"
)

// overflowJS lists (at most five) elements of the page's main content that
// reach past the viewport's edges, outside the sideways-scrolling table
// wrappers; the page's own horizontal overflow comes first.
const overflowJS = `(() => {
	const w = document.documentElement.clientWidth, out = [];
	if (document.documentElement.scrollWidth > w) out.push("document " + document.documentElement.scrollWidth + " > " + w);
	for (const el of document.querySelectorAll("main *, body > div *")) {
		const r = el.getBoundingClientRect();
		if (r.width > 0 && (r.right > w + 0.5 || r.left < -0.5) && !el.closest(".table-wrap") && !el.closest("[style*='display:none']")) {
			out.push(el.tagName.toLowerCase() + "." + el.className + " " + Math.round(r.left) + ".." + Math.round(r.right));
		}
	}
	return out.slice(0, 5);
})()`

// The briefing page at a phone's width, a small tablet's (inside the 641–860
// px range where the old job tables collapsed) and a desktop's, and on
// paper. It asserts no horizontal overflow at 390 and 700 px and that no
// job's address column collapses; the screenshots are for people to look at.
func TestBriefingLayout(t *testing.T) {
	e, sum, org, today := demoEnv(t)
	admin, _, _, _ := demoAccounts(t, sum)
	a := e.newSession("admin")
	a.login(admin)
	path := "/orgs/" + org.Slug + "/briefings/" + today.Date.String()

	for _, w := range []int64{390, 700, 1280} {
		var opts []chromedp.EmulateViewportOption
		if w < 500 {
			opts = append(opts, chromedp.EmulateMobile)
		}
		a.do(fmt.Sprintf("viewport %d px", w), chromedp.EmulateViewport(w, 900, opts...))
		a.open(path)
		a.waitText("#action-items", "Needs action", "Emergencies")
		a.waitText("#routes", "Technicians")
		if w <= 700 {
			over, err := eval[[]string](a, overflowJS)
			if err != nil {
				t.Fatalf("measure overflow: %v", err)
			}
			if len(over) > 0 {
				t.Errorf("at %d px the briefing reaches past the screen: %q", w, over)
			}
		}
		narrowest, err := eval[float64](a, `Math.min(...[...document.querySelectorAll(".job .j-address")].map(e => e.getBoundingClientRect().width))`)
		if err != nil {
			t.Fatalf("measure addresses: %v", err)
		}
		if narrowest < 80 {
			t.Errorf("at %d px an address is squeezed to %.0f px", w, narrowest)
		}
		a.screenshot(fmt.Sprintf("11-briefing-%d", w))
	}

	// On paper: no navigation, a page per technician.
	a.do("A4 width", chromedp.EmulateViewport(794, 1123))
	a.open(path)
	a.waitText("#routes", "Technicians")
	a.do("print media", func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "print"})
		return chromedp.Void{}, err
	})
	hidden, err := eval[bool](a, `[".topbar .nav", ".day-nav", "#runs-title"].every(s => { const el = document.querySelector(s); return el && el.getClientRects().length === 0 })`)
	if err != nil || !hidden {
		t.Errorf("printed, the navigation and the run history should be hidden (err %v)", err)
	}
	a.screenshot("11-briefing-print")
	ctx, cancel := a.step()
	defer cancel()
	pdf, err := chromedp.Run(ctx, chromedp.PrintToPDF(chromedp.PDFPaper(chromedp.PaperA4)))
	if err != nil {
		t.Fatalf("print to PDF: %v", err)
	}
	if err := os.MkdirAll(screenshotDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(screenshotDir, "11-briefing.pdf"), pdf, 0o644); err != nil {
		t.Errorf("save the PDF: %v", err)
	}
	techs, err := eval[int](a, `document.querySelectorAll(".technician").length`)
	if err != nil {
		t.Fatal(err)
	}
	pages := len(regexp.MustCompile(`/Type\s*/Page\b`).FindAll(pdf, -1))
	if pages < techs+1 {
		t.Errorf("printed on %d pages; want the action items, then one page per technician (%d)", pages, techs)
	}
}

// The dispatcher's email of the same briefing, at a phone's width and a
// small tablet's.
func TestBriefingEmailLayout(t *testing.T) {
	e, _, org, today := demoEnv(t)
	zone, err := schedule.LoadZone(today.Timezone)
	e.must("zone", err)
	v := snapshot.View(*today.Content, zone.Loc)
	var html bytes.Buffer
	err = mail.HTML(mail.BriefingEmail{
		OrgName: org.Name, DateLabel: today.Date.Time().Format("Mon 2 Jan"), Timezone: zone.Name,
		BriefingURL: e.url + "/orgs/" + org.Slug + "/briefings/" + today.Date.String(), UnsubscribeURL: e.url + "/unsubscribe",
		Recipient: mail.Dispatcher, Summary: v.Summary, ActionItems: v.ActionItems, Routes: v.Routes, Cancelled: v.Cancelled,
		Yesterday: v.Yesterday,
	}).Render(e.ctx, &html)
	e.must("render the email", err)
	s := e.newSession("mail")
	for _, w := range []int64{390, 700} {
		s.do(fmt.Sprintf("viewport %d px", w), chromedp.EmulateViewport(w, 900),
			chromedp.Navigate("data:text/html;base64,"+base64.StdEncoding.EncodeToString(html.Bytes())))
		s.waitText("body", "Needs action", "Routes")
		over, err := eval[[]string](s, strings.Replace(overflowJS, "main *, ", "", 1))
		if err != nil {
			t.Fatalf("measure overflow: %v", err)
		}
		if len(over) > 0 {
			t.Errorf("at %d px the email reaches past the screen: %q", w, over)
		}
		s.screenshot(fmt.Sprintf("12-email-%d", w))
	}
}
