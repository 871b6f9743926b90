module example.com/us

go 1.22
