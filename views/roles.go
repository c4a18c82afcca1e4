package views

// RoleMessage is the message id of a role's name on the members page
// ("Member", "Dispatcher", "Admin"); "" for an unknown role. The
// dispatcher's messages are in their own table (added with the role,
// docs/accounts.md "Roles").
func RoleMessage(role string) string {
	switch role {
	case "admin", "member":
		return "members.role_" + role
	case "dispatcher":
		return "members.roles.dispatcher"
	}
	return ""
}

// RoleWordsMessage is the message id of a role as the invite says it: "an
// admin", "a dispatcher", "a member".
func RoleWordsMessage(role string) string {
	switch role {
	case "admin":
		return "mail.account.role_admin"
	case "dispatcher":
		return "mail.account.roles.dispatcher"
	}
	return "mail.account.role_member"
}
