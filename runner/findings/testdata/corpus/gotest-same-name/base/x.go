package sn

func Add(a, b int) int { return a + b }

func Parse(s string) int { return len(s) }
