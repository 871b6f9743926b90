module example.com/tf

go 1.22
