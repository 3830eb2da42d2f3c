module example.com/minmax

go 1.22
