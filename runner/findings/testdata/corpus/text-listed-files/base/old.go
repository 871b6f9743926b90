package x
var A   =  1
