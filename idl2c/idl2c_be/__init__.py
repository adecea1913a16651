# idl2c_be - the omniidl back end of idl2c (the OMG IDL-to-C mapping).
#
# omniidl runs it as `omniidl -p DIR -b idl2c_be FILE.idl` (the idl2c
# wrapper does); the whole work is driver.run().

from . import driver

usage_string = """\
  (idl2c's options are the idl2c program's: see idl2c --help)"""


def run(tree, args):
    driver.run(tree, args)
