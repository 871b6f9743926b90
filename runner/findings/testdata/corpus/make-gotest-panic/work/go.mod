module example.com/mk

go 1.22
