// Package briefing is the briefing record: one org's briefing for one local
// date, its revisions and their generation runs (docs/architecture.md).
//
//   - generate_task.go: the generation task, which builds a new revision's
//     snapshot (internal/snapshot) and, for the scheduled firing, creates
//     its deliveries (internal/delivery) in the same transaction, once per
//     revision however often it runs;
//   - read.go: what the web shows (list, detail, runs, revisions);
//   - calendar.go: why a date of the calendar has no briefing;
//   - generate_now.go: an admin's "generate now".
//
// The tick (internal/tick) creates the scheduled firings and their
// generation tasks; the worker (internal/worker) runs the tasks.
package briefing
