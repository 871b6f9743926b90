module example.com/cf

go 1.22
