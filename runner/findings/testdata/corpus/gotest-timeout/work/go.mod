module example.com/sl

go 1.22
