module example.com/sn

go 1.22
