package web

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/schedule"
	"fieldbrief/views"
)

// Preview sizes: the runs listed, and how far ahead DST problems are looked for.
const (
	previewRuns     = 7
	previewDSTDays  = 366
	previewDateForm = "Mon 2006-01-02"
)

// settingsPreview answers the editor's htmx request with the next runs of
// the schedule as currently typed (nothing is saved). Invalid values are
// answered with 200 and their messages, because htmx swaps only 2xx
// responses: the fragment is the feedback. The zone hint under the input
// comes along out of band, so it follows a zone picked before saving.
func (s *Server) settingsPreview(c echo.Context) error {
	in, err := scheduleInputFrom(c)
	if err != nil {
		return err
	}
	return s.render(c, http.StatusOK, views.PreviewAnswer(s.preview(in.document()), s.zoneHint(in.timezone)))
}

// preview lists the next runs of a config document with schedule.NextRuns,
// the rule the worker's decision uses, and the DST problems of the next year.
func (s *Server) preview(raw []byte) views.Preview {
	_, sched, err := schedule.ParseConfig(raw)
	var ve *schedule.ValidationError
	if errors.As(err, &ve) {
		return views.Preview{Errors: fieldMessages(ve)}
	}
	if err != nil {
		return views.Preview{Errors: []views.FieldMessage{{Message: err.Error()}}}
	}
	now := s.now()
	p := views.Preview{Zone: sched.Zone.Name, Paused: !sched.Enabled}
	for _, r := range schedule.NextRuns(now, sched, previewRuns) {
		p.Runs = append(p.Runs, views.PreviewRun{
			Date:   r.Local.Format(previewDateForm),
			Local:  r.Local.Format("15:04"),
			UTC:    r.UTC.Format("2006-01-02 15:04") + " UTC",
			Offset: r.Offset,
			Flag:   string(r.Note),
			Note:   runNote(r),
		})
	}
	for _, r := range schedule.DSTWarnings(now, sched, previewDSTDays) {
		p.Warnings = append(p.Warnings, dstWarning(r, sched.Zone.Name))
	}
	return p
}

// runNote flags a run a DST transition bends, in the preview table.
func runNote(r schedule.Run) string {
	switch r.Note {
	case schedule.DSTGap:
		return fmt.Sprintf("shifted: %s doesn't exist, runs at %s", r.Scheduled, r.Local.Format("15:04"))
	case schedule.DSTOverlap:
		return fmt.Sprintf("overlap: runs at the first %s (%s)", r.Scheduled, r.Offset)
	}
	return ""
}

// dstWarning explains a run a DST transition bends within the next year.
func dstWarning(r schedule.Run, zone string) string {
	switch r.Note {
	case schedule.DSTGap:
		return fmt.Sprintf("%s does not exist on %s in %s; the briefing will run at %s that day.",
			r.Scheduled, r.Date, zone, r.Local.Format("15:04"))
	case schedule.DSTOverlap:
		return fmt.Sprintf("%s happens twice on %s in %s; the briefing runs once, at the first %s (%s).",
			r.Scheduled, r.Date, zone, r.Scheduled, r.Offset)
	}
	return ""
}
