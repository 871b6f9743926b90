module example.com/gv

go 1.22
