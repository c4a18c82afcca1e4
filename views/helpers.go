package views

import "encoding/json"

func csrfHeaders(token string) string {
	b, _ := json.Marshal(map[string]string{"X-CSRF-Token": token})
	return string(b)
}

// current marks the nav entry of the section being shown.
func current(section, entry string) string {
	if section == entry {
		return "page"
	}
	return "false"
}
