package views_test

import (
	"github.com/a-h/templ"

	"fieldbrief/internal/i18n"
	"fieldbrief/views"
)

// fieldBlocks are jobs as timeline blocks, 9:00–11:00 on a 06:00–20:00
// board, every flag on (each flag's words are checked).
func fieldBlocks(jobs []views.JobRow) []views.BoardBlock {
	out := make([]views.BoardBlock, len(jobs))
	for i, j := range jobs {
		out[i] = views.BoardBlock{JobRow: j, From: 13, To: 21, ClipEnd: true, Overlap: true, Late: i == 0, Soon: i != 0, Attention: true}
	}
	return out
}

// boardTimelinePages are TL's pages of coveredPages: the board with its
// hours, the current time, every count and flag, the overdue section
// unfolded and a job's Move forms (the way without JavaScript).
func boardTimelinePages() map[string]func(p views.Page) templ.Component {
	pl := i18n.Pseudo()
	return map[string]func(p views.Page) templ.Component{
		"day board (timeline, flags, counts, move panel)": func(p views.Page) templ.Component {
			p.User = &views.User{Email: "ada@acme.test"}
			p.Orgs = []views.OrgLink{{Slug: "acme", Name: "Acme Field Services", Admin: true}}
			p.Org = &p.Orgs[0]
			p.Title = pl.Tf("board.title", map[string]any{"Date": "Wed, Mar 4"})
			b := fieldBoard(pl, true)
			b.Timeline = views.Timeline{Slots: 56, Hours: []views.HourMark{{Line: 1, Label: "8:04\u202fAM"}}, Now: 9, NowLabel: "8:04\u202fAM"}
			b.Counts = views.BoardCounts{Emergencies: 1, Overdue: 2, Unassigned: 3, OnHold: 4, Overlaps: 5, Late: 6, Soon: 7}
			b.OverdueOpen = true
			b.Move = &b.Overdue[0]
			return views.DayBoard(views.BoardPage{Page: p, DayLabel: "Wednesday, March 4, 2026", Zone: nyZone, IsToday: true,
				Board: b, Form: jobForm(pl)})
		},
	}
}
