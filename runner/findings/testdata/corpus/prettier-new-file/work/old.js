const a  =  1
