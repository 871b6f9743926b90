package vr

func Log() string {
	return "a"
	return "unreachable"
}
