module example.com/ub

go 1.22
