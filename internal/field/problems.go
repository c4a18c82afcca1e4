package field

// Problem codes: what is wrong with one field's value, stable for callers
// that say it in their own words. The web turns a code and its parameters
// into a message of the reader's language (internal/web/problems.go); the
// JSON API keeps the English Message (developers' convention) and carries
// the code beside it. A problem without a code ("") is said by its Message.
const (
	CodeRequired           = "required"
	CodeNotUTF8            = "not_utf8"
	CodeControlChars       = "control_chars"
	CodeTooLong            = "too_long" // Limit: the most characters
	CodeEmailInvalid       = "email_invalid"
	CodeEmailIPLiteral     = "email_ip_literal"      // an address we never send to: an IP address after the @
	CodeEmailDotless       = "email_dotless_domain"  // … a name without a dot (localhost)
	CodeEmailInternal      = "email_internal_domain" // … an internal network's name (.local, .internal)
	CodeLanguageUnknown    = "language_unknown"
	CodeStatusUnknown      = "status_unknown"
	CodeTechnicianInvalid  = "technician_invalid"     // an id that is no technician of the org
	CodeTechnicianBoth     = "technician_both"        // by id and by reference at once
	CodeTechnicianByRef    = "technician_by_ref"      // a batch names technicians by reference only
	CodeTechnicianUnknown  = "technician_ref_unknown" // Value: the reference
	CodeTechnicianInactive = "technician_inactive"    // a job newly given to a deactivated technician (assignProblem)
	CodeWindowReversed     = "window_reversed"        // the window ends before it starts
	CodeTooEarly           = "too_early"              // Limit: the first year allowed
	CodeTooLate            = "too_late"               // Limit: the last year allowed
	CodeRefTaken           = "ref_taken"              // another record of the org has the reference
	CodeRefRepeated        = "ref_repeated"           // Value: the reference; Other: the batch row that has it first
)

// Problem is one field's problem as a code with its parameters, and the
// English message built from them.
type Problem struct {
	Code    string
	Value   string // the value refused, when the message names it
	Limit   int    // a bound: characters, a year
	Other   int    // another row of the same batch (from 0)
	Message string // English: "is too long: at most 200 characters"
}
