module example.com/gp

go 1.22
