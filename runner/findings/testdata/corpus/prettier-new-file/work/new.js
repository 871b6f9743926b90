const b  =  2
